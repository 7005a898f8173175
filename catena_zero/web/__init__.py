"""Play the bot in a browser: a Starlette app (``app.py``) with sessions (``sessions.py``), the
bot behind a worker pool (``bots.py``), state records (``views.py``), the checks before the app
(``guard.py``), and a static page (``static/``: plain HTML, CSS and JavaScript ES modules, no build
step, nothing fetched from elsewhere). ``catena-zero serve`` runs it with uvicorn (``server.py``,
its HTTP protocol with deadlines and connection caps in ``protocol.py``).

The app is imported from ``catena_zero.web.app`` (``create_app``), so that commands that do not
serve never import Starlette."""
