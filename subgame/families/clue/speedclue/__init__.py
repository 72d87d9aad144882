"""The Speed Clue contest's protocol (sadakatsu/SpeedClueContest, protocol.md), both sides.

* ``grammar``: the messages, parsed and written, and the card abbreviations;
* ``wire``: one message a read, as the contest's server frames them;
* ``client``: a subgame player (``game.standard_players``) in a Speed Clue server's game;
* ``host``: the server's role: launches the agents of a contest launch file, plays matches
  of the standard game between them, disqualifies a peer that breaks the protocol.
"""
