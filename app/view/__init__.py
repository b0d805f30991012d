"""The inspector's view model: watched-task state and its reducer, filter and sort, JSON diffs,
text formatting and the JSON the App copies or saves. Pure Python (Rich at most, never Textual),
so widgets and tests use it without an App."""
