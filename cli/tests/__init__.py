"""Tests of the ltm client."""
