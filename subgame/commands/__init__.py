"""The CLI's verbs, one module per family; `subgame.cli` assembles them."""
