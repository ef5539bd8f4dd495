"""Every menu page of the window and its focus and keys; pages send requests to the app."""
