"""The Manille daily-challenge service.  Subpackages: ``replay`` (the pure engine), ``seeds``."""
