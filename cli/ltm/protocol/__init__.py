"""The packet protocol shared by the hub and the client: schemas, validation, redaction, resume.

It imports nothing else of `ltm`, so the hub can use it without loading the command line.
"""
