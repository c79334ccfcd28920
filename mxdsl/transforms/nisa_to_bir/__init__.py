"""``lower-nisa-to-bir`` in two passes: ``nisa-allocate`` (:mod:`.allocate`) and
``nisa-select`` (:mod:`.select`), over the access patterns of :mod:`.patterns`."""
