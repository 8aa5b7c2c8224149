"""One module per rule, named `tdNNN_<name>.py`; being here is what registers a rule."""
