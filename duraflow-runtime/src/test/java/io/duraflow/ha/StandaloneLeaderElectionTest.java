package io.duraflow.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.ha.ZooKeeperLeaderElectionTest.Contender;
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
}
