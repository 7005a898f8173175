// The page's one door to the server: JSON requests, and the one-line errors the server answers.

export class ApiFailure extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  // Every request that changes a game says JSON, body or not: the server refuses others, so
  // another site's form cannot post here (CSRF).
  if (method !== "GET") options.headers["Content-Type"] = "application/json";
  if (body !== undefined) options.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiFailure(0, "the server cannot be reached (is catena-zero serve still running?)");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiFailure(response.status, data.error || `HTTP ${response.status}`);
  return data;
}
