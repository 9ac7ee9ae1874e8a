"""`ltm conformance`: a portable test kit for any ltm server.

The checks are data (vectors/*.json, in the format vectors/format.schema.json describes); this
package loads them (vectors), builds their packets (fixtures) and requests (template), sends them
(wire), judges the answers (expect), runs the checks and cleans up after them (runner), sends
hostile requests (fuzz) and reports (report).
"""
