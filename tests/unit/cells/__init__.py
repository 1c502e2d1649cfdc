"""Tests of authbench.cells, one file per module."""
