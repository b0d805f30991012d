"""The App's verbs, one small module each: what a key does, once the App has dispatched it.

Every verb takes the App, reads its state, talks to its source and says what happened in a toast;
a verb that waits on the server runs in a worker the App owns (`App.run_worker`), so its bindings
and action names stay on the App while the work lives here.
"""
