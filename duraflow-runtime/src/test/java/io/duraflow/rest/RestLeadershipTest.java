package io.duraflow.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.config.Configuration;
import io.duraflow.rpc.RpcServers;
import io.duraflow.rpc.proto.DispatcherGatewayGrpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a JobManager that does not lead (yet) answers, with a fake backend: a standby sends API
 * clients and browsers to the leader's REST URL (307), and asks them to come back while no leader
 * is known or while it takes over (503 with Retry-After). Also how the port is chosen.
 */
class RestLeadershipTest {
    private RestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Http start(Leadership leadership) {
        RestBackend backend = new RestBackend() {
            @Override
            public DispatcherGatewayGrpc.AsyncService gateway() {
                return new DispatcherGatewayGrpc.AsyncService() {};
            }

            @Override
            public Leadership leadership() {
                return leadership;
            }

            @Override
            public Configuration configuration() {
                return Configuration.fromMap(Map.of("rest.port", "0"));
            }
        };
        server = RestServer.start(Configuration.fromMap(Map.of("rest.port", "0")), backend);
        return new Http(server.url());
    }

    @Test
    void aStandbySendsClientsToTheLeader() {
        Http http = start(new Leadership.Standby("http://127.0.0.1:18081", "127.0.0.1:16123"));

        Http.Answer answer = http.get("/v1/jobs/some-job?x=1");

        assertThat(answer.status()).isEqualTo(307);
        assertThat(answer.header("Location")).isEqualTo("http://127.0.0.1:18081/v1/jobs/some-job?x=1");
        assertThat(answer.json().path("leader").path("restUrl").asText()).isEqualTo("http://127.0.0.1:18081");
        assertThat(answer.json().path("leader").path("address").asText()).isEqualTo("127.0.0.1:16123");
        assertThat(http.post("/v1/jobs/some-job/cancel", "{}").status()).isEqualTo(307);
        Http.Answer page = http.get("/");
        assertThat(page.status()).isEqualTo(307);
        assertThat(page.header("Location")).isEqualTo("http://127.0.0.1:18081/");
    }

    @Test
    void aStandbyAnswersAboutItselfWithoutTheLeader() {
        Http http = start(new Leadership.Standby("http://127.0.0.1:18081", "127.0.0.1:16123"));

        assertThat(http.get("/v1/config").status()).isEqualTo(200);
        assertThat(http.get("/v1/openapi.json").status()).isEqualTo(200);
        assertThat(http.get("/ui/app.js").status()).isEqualTo(200);
    }

    @Test
    void withoutAKnownLeaderClientsAreAskedToComeBack() {
        Http http = start(new Leadership.Standby("", ""));

        Http.Answer answer = http.get("/v1/overview");

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.header("Retry-After")).isEqualTo("1");
        assertThat(answer.json().path("message").asText()).contains("no leader is known yet");
    }

    @Test
    void aLeaderThatTakesOverAsksClientsToComeBack() {
        Http http = start(new Leadership.TakingOver());

        Http.Answer answer = http.get("/v1/jobs");

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.json().path("message").asText()).contains("taking over");
    }

    @Test
    void aGatewayThatCannotAnswerIsAJsonError() {
        Http http = start(new Leadership.Leading());

        Http.Answer answer = http.get("/v1/jobs");

        assertThat(answer.status()).isEqualTo(501);
        assertThat(answer.json().path("status").asInt()).isEqualTo(501);
    }

    @Test
    void aTakenDefaultPortFallsBackToAFreeOneButAChosenPortFails() throws IOException {
        ServerSocket blocker;
        try {
            blocker = new ServerSocket(8081, 1, InetAddress.getByName("127.0.0.1"));
        } catch (IOException taken) {
            blocker = null;  // someone else holds 8081: just as good
        }
        try {
            RestBackend backend = fakeLeader();
            server = RestServer.start(Configuration.fromMap(Map.of()), backend);
            assertThat(server.port()).isNotEqualTo(8081).isPositive();
            server.close();
            server = null;
            assertThatThrownBy(() -> RestServer.start(Configuration.fromMap(Map.of("rest.port", "8081")), backend))
                    .isInstanceOf(RpcServers.BindFailedException.class)
                    .hasMessageContaining("port 8081 on 127.0.0.1 is already in use").hasMessageContaining("rest.port");
        } finally {
            if (blocker != null) {
                blocker.close();
            }
        }
    }

    @Test
    void portMinusOneServesNothing() {
        assertThat(RestServer.start(Configuration.fromMap(Map.of("rest.port", "-1")), fakeLeader())).isNull();
    }

    @Test
    void onlyLoopbackHostNamesAreAnsweredOnALoopbackAddress() {
        assertThat(RestServer.isLoopbackHost("127.0.0.1:8081")).isTrue();
        assertThat(RestServer.isLoopbackHost("localhost")).isTrue();
        assertThat(RestServer.isLoopbackHost("[::1]:8081")).isTrue();
        assertThat(RestServer.isLoopbackHost("evil.example:8081")).isFalse();
        assertThat(RestServer.isLoopbackHost("10.0.0.1")).isFalse();
        assertThat(RestServer.isLoopbackHost(null)).isFalse();
    }

    private static RestBackend fakeLeader() {
        return new RestBackend() {
            @Override
            public DispatcherGatewayGrpc.AsyncService gateway() {
                return new DispatcherGatewayGrpc.AsyncService() {};
            }

            @Override
            public Leadership leadership() {
                return new Leadership.Leading();
            }

            @Override
            public Configuration configuration() {
                return Configuration.fromMap(Map.of());
            }
        };
    }
}
