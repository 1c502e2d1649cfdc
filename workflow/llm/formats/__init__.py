"""Reply formats, one module each (being filled in: issue 20)."""
