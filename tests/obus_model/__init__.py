"""A model OBUS bomb for the tests: a controller, puzzle and needy modules and info modules, each a
process of its own on python-can's udp_multicast (:mod:`.node`), written from the spec page's tables
(:mod:`.spec`), never from the product; :mod:`.harness` starts them and reads what they say."""
