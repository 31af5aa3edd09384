package io.duraflow.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.duraflow.ha.ZooKeeperLeaderElectionTest.Contender;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StandaloneLeaderElectionTest {
    @Test
    void givingUpStartsANewSessionAndALateGiveUpOfAnEarlierOneIsIgnored() {
        StandaloneLeaderElection election = new StandaloneLeaderElection();
        Contender contender = new Contender();
        election.start(contender);
        String first = contender.session.get();
        assertThat(election.stillLeads(first)).isTrue();

        election.giveUpAndRejoin(first, 0);
        String second = contender.session.get();
        assertThat(second).isNotEqualTo(first);
        assertThat(contender.events).containsExactly("granted " + first, "revoked", "granted " + second);

        election.giveUpAndRejoin(first, 0);
        election.giveUpAndRejoin(null, 0);
        assertThat(election.stillLeads(second)).isTrue();
        assertThat(contender.events).hasSize(3);
    }

    /**
     * A JobManager whose take-over failed stays out of the election for the delay it asks for
     * (without it, a torn job graph file made it give up and win again in a tight loop),
     * and a close during the delay ends it for good.
     */
    @Test
    void givingUpWithADelayGrantsANewSessionOnlyAfterTheDelay() {
        StandaloneLeaderElection election = new StandaloneLeaderElection();
        Contender contender = new Contender();
        election.start(contender);
        String first = contender.session.get();

        long start = System.nanoTime();
        election.giveUpAndRejoin(first, 500);

        assertThat(contender.events).containsExactly("granted " + first, "revoked");
        assertThat(election.stillLeads(first)).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> contender.session.get() != null);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(contender.events).containsExactly("granted " + first, "revoked",
                "granted " + contender.session.get());

        election.giveUpAndRejoin(contender.session.get(), 200);
        election.close();
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
                .until(() -> contender.events.size() == 4);
        assertThat(contender.session.get()).isNull();
    }
}
