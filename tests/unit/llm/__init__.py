"""Tests of authbench.llm, one file per module."""
