package io.duraflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.duraflow.examples.StreamingKeyedSum;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RestoreCommandLineTest {
    @Test
    void theLineNamesTheBundledJobItsParallelismParametersAndCheckpointingQuotedForAShell() {
        RestoreCommandLine.JobFacts job = new RestoreCommandLine.JobFacts(StreamingKeyedSum.class.getName(),
                Map.of("records", "1000", "output", "/data/my sums", "note", "it's \"odd\" $HOME"), 2, 300,
                "/data/checkpoints");
        String line = RestoreCommandLine.of(List.of("--jobmanager", "127.0.0.1:6123"), job,
                "/data/savepoints/savepoint-abc-7");
        assertThat(line).isEqualTo("duraflow --jobmanager 127.0.0.1:6123 run streaming-keyed-sum --parallelism 2"
                + " --param 'note=it'\\''s \"odd\" $HOME' --param 'output=/data/my sums' --param records=1000"
                + " -D execution.runtime-mode=streaming -D execution.checkpointing.interval=300ms"
                + " -D execution.checkpointing.dir=/data/checkpoints"
                + " --from-savepoint /data/savepoints/savepoint-abc-7");
    }

    @Test
    void aJobClassThatIsNoBundledExampleIsNamedByItsClassAndUnknownFactsAreLeftOut() {
        assertThat(RestoreCommandLine.of(List.of(), new RestoreCommandLine.JobFacts("com.example.MyJob", Map.of(), 0,
                0, ""), "/sp")).isEqualTo("duraflow run com.example.MyJob -D execution.runtime-mode=streaming"
                        + " --from-savepoint /sp");
        assertThat(RestoreCommandLine.of(List.of(), RestoreCommandLine.JobFacts.UNKNOWN, "/a b/sp"))
                .isEqualTo("duraflow run JOB -D execution.runtime-mode=streaming --from-savepoint '/a b/sp'");
    }

    @Test
    void theCheckpointDirectoryIsReadFromACheckpointsMetadataPathOnly() {
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "/tmp/cp/j1/chk-12/_metadata")).isEqualTo("/tmp/cp");
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "hdfs://nn:8020/cp/j1/chk-3/_metadata"))
                .isEqualTo("hdfs://nn:8020/cp");
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "/j1/chk-3/_metadata")).isEqualTo("/");
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "/sp/savepoint-j1-4/_metadata")).isEmpty();
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "/cp/other/chk-3/_metadata")).isEmpty();
        assertThat(RestoreCommandLine.checkpointDirectory("j1", "")).isEmpty();
    }

    /** A POSIX shell splits the quoted words back into the words. */
    @Test
    void aShellReadsEveryQuotedWordBack() throws IOException, InterruptedException {
        List<String> words = List.of("plain", "with space", "it's", "'", "\"$HOME\"", "a\\b", "*", "", "x=y;z", "é");
        List<String> quoted = new ArrayList<>();
        words.forEach(word -> quoted.add(RestoreCommandLine.quote(word)));
        Process shell = new ProcessBuilder("sh", "-c", "printf '%s\\n' " + String.join(" ", quoted))
                .redirectErrorStream(true).start();
        String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(shell.waitFor()).isZero();
        assertThat(output.lines().toList()).isEqualTo(words);
    }
}
