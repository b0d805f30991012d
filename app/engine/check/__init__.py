"""`taskscope check`: judge a server's tasks implementation on either wire, with the frames behind
every verdict. Headless engine code; the CLI and the inspector are two faces over it."""
