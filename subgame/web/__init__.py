"""`subgame web`: the stored answers of one store served read-only over HTTP, with a page
to explore them and to play (app.py: the API; static/: the page; each family's oracle
answers and script live in its own folder, named by its ``Family.oracle``)."""
