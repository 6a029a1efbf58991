"""The run manager of the explorer: it starts, watches, cancels, resumes and deletes the
training runs of a runs root, each trained by its own process. The run directory itself
(config, word counts, checkpoints, status, lock) is the library's, :mod:`sgpe.runs`.

* :mod:`~sgpe_explorer.runs.manager` -- :class:`RunManager`, the queue and the uploads;
* :mod:`~sgpe_explorer.runs.trainer` -- the trainer process the manager starts;
* :mod:`~sgpe_explorer.runs.records` -- runs, labels, owners and requests;
* :mod:`~sgpe_explorer.runs.sizes` -- the vocabulary sizes a corpus allows;
* :mod:`~sgpe_explorer.runs.place` -- where the app keeps its runs.
"""
