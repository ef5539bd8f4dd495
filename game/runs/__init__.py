"""How each run the command line asks for starts: headless, in a window, online."""
