"""A worked mxdsl extension (docs/extending.md): the ``ext`` dialect, the
``ext-fold-scales`` pass, its interpreter functions, and the ``ExtSoftCap`` custom call."""
