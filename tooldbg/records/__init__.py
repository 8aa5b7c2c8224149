"""Containers → exchanges: one JSON body, JSON Lines, recorded interactions, HAR 1.2, folders."""
