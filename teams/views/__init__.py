"""The dashboard's team pages, by subject: pages (list, team, activity), invites, actions
(members, ownership, leaving, deleting) and settings."""
