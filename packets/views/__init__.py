"""The packet's pages on the dashboard: the list (listing), a packet's page and its own actions
(packet), and its thread (thread). Each subject's pages are in its subpackage's views."""
