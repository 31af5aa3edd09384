package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.rpc.proto.SubmitJobRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class JobOptionsTest {
    @Test
    void theCommandsOverridesBecomeTheJobsConfiguration() {
        Duraflow root = new Duraflow();
        CommandLine cli = new CommandLine(root);
        CommandLine.ParseResult parsed = cli.parseArgs("run", "-D", "execution.runtime-mode=streaming",
                "streaming-keyed-sum", "--param", "records=10", "-D", "execution.checkpointing.interval=1s");
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();

        SubmitJobRequest request = run.options.request(run.root.overrides);

        assertThat(request.getConfigMap()).containsEntry("execution.runtime-mode", "streaming")
                .containsEntry("execution.checkpointing.interval", "1s");
        assertThat(request.getParamsMap()).isEqualTo(Map.of("records", "10"));
    }
}
