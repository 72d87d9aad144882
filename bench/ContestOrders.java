import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import com.sadakatsu.clue.cards.Hand;
import com.sadakatsu.clue.contestserver.Match;
import com.sadakatsu.clue.contestserver.Player;
import com.sadakatsu.clue.exception.ClueException;
import com.sadakatsu.clue.exception.TimeoutViolation;
import com.sadakatsu.util.Combinations;
import com.sadakatsu.util.EntryScript;
import com.sadakatsu.util.Permutations;

/**
 * The Speed Clue contest's games of one player count only, for bench/clue_field.py.
 *
 *     java -cp CONTEST/build/core bench/ContestOrders.java agents.txt PLAYERS GAMES_PER_ORDER
 *
 * The contest's ContestServer plays every combination of 3 to min(6, n) of its n entrants;
 * this plays every combination of exactly PLAYERS of them, every seat order of each,
 * GAMES_PER_ORDER games an order, through the contest's own classes: its EntryScript
 * launches the entrants, its Player speaks the protocol with the contest's time limit, its
 * Match deals and referees each game. Each game's line (ContestServer's transcript format)
 * is appended to matchTranscripts.txt as the game ends, so a run stopped at any moment
 * restarts after the last recorded game. An entrant that breaks a rule ends the run with
 * status 3, as the contest would discard every game it played.
 */
public class ContestOrders {
    public static void main(String[] args) throws Exception {
        File agents = new File(args[0]);
        int count = Integer.parseInt(args[1]);
        int gamesPerOrder = Integer.parseInt(args[2]);
        Path transcripts = Path.of("matchTranscripts.txt");
        long recorded = Files.exists(transcripts) ? Files.readAllLines(transcripts).size() : 0;

        try (ServerSocket accept = new ServerSocket(0)) {
            accept.setSoTimeout(TimeoutViolation.TIMEOUT);
            Map<String, Player> players = EntryScript.process(agents, accept, false);
            List<Player> playing = new ArrayList<>();
            for (Map.Entry<String, Player> entry : players.entrySet()) {
                if (entry.getValue() == null) {
                    System.err.println(entry.getKey() + " failed to start");
                    System.exit(3);
                }
                playing.add(entry.getValue());
            }
            // The schedule is the same in every run, so a restart knows where it stopped.
            playing.sort(Comparator.comparing(Player::getIndentifier));
            long game = 0;
            try (FileWriter out = new FileWriter(transcripts.toFile(), true)) {
                for (Collection<Player> inGame : Combinations.get(playing, count)) {
                    for (List<Player> order : Permutations.get(inGame)) {
                        for (int j = 0; j < gamesPerOrder; ++j, ++game) {
                            if (game < recorded) {
                                continue;
                            }
                            out.write(transcript(new Match(order)));
                            out.flush();
                        }
                    }
                }
            } catch (ClueException e) {
                System.err.println(e.getOffender().getIndentifier() + " is disqualified: " + e.getMessage());
                System.exit(3);
            } finally {
                for (Player p : playing) {
                    try {
                        p.done();
                    } catch (IOException | ClueException e) {
                        // the entrant is already gone; nothing is left to tell it
                    }
                }
            }
        }
    }

    /** ContestServer.recordMatch's line: players, winner's seat, rounds, then per seat its
     * identifier and how many suspects, weapons and rooms it was dealt. */
    static String transcript(Match match) {
        List<Hand> hands = match.getHands();
        List<Player> seats = match.getPlayers();
        StringBuilder line = new StringBuilder(String.format("%d,%d,%d", match.getPlayerCount(),
                seats.indexOf(match.getWinner()), match.getRounds()));
        for (int i = 0; i < seats.size(); ++i) {
            line.append(',').append(seats.get(i).getIndentifier())
                .append(',').append(hands.get(i).getDistributionString());
        }
        return line.append('\n').toString();
    }
}
