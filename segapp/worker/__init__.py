"""The computation process behind the window, with no Qt anywhere in it.

:mod:`.results` holds the typed messages (a request, its node-level result, the node map
sent once per representation), :mod:`.engine` the computation, :mod:`.process` the
worker process's loop and :mod:`.client` the window's end of the pipe (start, call,
restart and retry). :mod:`segapp.gui.runner` wraps the client in a thread for Qt.
"""
