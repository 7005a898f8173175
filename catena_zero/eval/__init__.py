"""Evaluation by matches. Data flows one way: game -> net/search -> bot -> eval; nothing below
imports eval, and the modules are imported by name (nothing is re-exported here).

- the players and matches: ``agents`` (batched agents and baselines), ``specs`` (the one registry
  of player kinds: ``random``, ``greedy``, ``mcts:K``, networks), ``arena`` (``play_match``, its
  report, the SPRT match), ``book`` (opening books), ``progress`` (a long command's progress);
- the statistics: ``ratings`` (``Tally``, Elo intervals and formatting, Bradley-Terry fits),
  ``sprt`` (pair statistics and the GSPRT), ``fairness`` (whether a network's fair komi means
  something, R6/R7), ``optimality`` (how often moves are optimal by exhaustive search);
- the experiments: ``ladder`` with ``ladder_file`` (a run's checkpoints rated), ``ablation`` with
  ``ablation_matches`` and ``ablation_decision`` (training choices decided by strength), ``inloop``
  (a run's learning-curve matches), ``curves`` (learning curves), ``recipe`` and ``shipping`` (a
  recipe's result and the shipped bots' index), and ``reports`` (their files, apart from the
  computations).
"""
