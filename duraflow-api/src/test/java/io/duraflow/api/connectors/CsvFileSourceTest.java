package io.duraflow.api.connectors;

import io.duraflow.api.NonRetriableException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.duraflow.api.connectors.SourceHarness.RecordingEnumeratorContext;
import io.duraflow.api.source.SplitEnumerator;
import io.duraflow.api.types.Types;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvFileSourceTest {
    @TempDir
    Path dir;

    @Test
    void parsesPlainAndQuotedFields() {
        assertThat(CsvParser.parse("a,b,c", ',')).containsExactly("a", "b", "c");
        assertThat(CsvParser.parse("a,,c,", ',')).containsExactly("a", "", "c", "");
        assertThat(CsvParser.parse(",", ',')).containsExactly("", "");
        assertThat(CsvParser.parse("\"a,b\",\"say \"\"hi\"\"\",\"\"", ',')).containsExactly("a,b", "say \"hi\"", "");
        assertThat(CsvParser.parse("\"\"\"\"", ',')).containsExactly("\"");
        assertThat(CsvParser.parse("x\"y,\"z\"tail,w", ',')).containsExactly("x\"y", "ztail", "w");
        assertThat(CsvParser.parse(" \"not quoted\" ", ',')).containsExactly(" \"not quoted\" ");
        assertThat(CsvParser.parse("a;\"b;c\";d,e", ';')).containsExactly("a", "b;c", "d,e");
        assertThat(CsvParser.parse("a\tb", '\t')).containsExactly("a", "b");
    }

    @Test
    void unterminatedQuoteFailsNamingFileAndOffset() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.csv"), "a,b\n\"multi\nline\",c\n");
        CsvFileSource source = new CsvFileSource(file.toString());

        assertThatThrownBy(() -> SourceHarness.readAll(source))
                .isInstanceOf(NonRetriableException.class)
                .hasMessageContaining("byte 4 of " + file)
                .hasMessageContaining("spanning lines are not supported");
    }

    @Test
    void skipsTheHeaderOfEveryFileAndEmptyLines() throws Exception {
        Files.writeString(dir.resolve("1.csv"), "id,name\r\n1,\"Smith, J\"\r\n\r\n2,x\n");
        Files.writeString(dir.resolve("2.csv"), "id,name\n3,y");
        Files.writeString(dir.resolve("3.csv"), "id,name only header");

        for (long splitSize = 1; splitSize <= 40; splitSize++) {
            assertThat(SourceHarness.readAll(new CsvFileSource(dir.toString(), ',', true, splitSize, 3)))
                    .as("split size %d", splitSize)
                    .containsExactly(List.of("1", "Smith, J"), List.of("2", "x"), List.of("3", "y"));
        }
        assertThat(SourceHarness.readAll(new CsvFileSource(dir.resolve("2.csv").toString())))
                .containsExactly(List.of("id", "name"), List.of("3", "y"));
    }

    @Test
    void randomCsvFilesReadExactlyForRandomSplitSizes() throws Exception {
        Random random = new Random(99);
        for (int run = 0; run < 200; run++) {
            char delimiter = random.nextBoolean() ? ',' : '|';
            List<List<String>> rows = new ArrayList<>();
            int rowCount = 1 + random.nextInt(15);
            for (int r = 0; r < rowCount; r++) {
                List<String> row = new ArrayList<>();
                int fields = 1 + random.nextInt(4);
                for (int f = 0; f < fields; f++) {
                    row.add(randomField(random, delimiter));
                }
                rows.add(row);
            }
            byte[] content = encode(rows, delimiter, random).getBytes(StandardCharsets.UTF_8);
            Path file = Files.write(dir.resolve("r" + run + ".csv"), content);
            long splitSize = 1 + random.nextInt(content.length + 1);
            boolean skipHeader = random.nextBoolean();

            List<List<String>> actual = SourceHarness.readAll(
                    new CsvFileSource(file.toString(), delimiter, skipHeader, splitSize, 1 + random.nextInt(8)));

            assertThat(actual).as("run %d split %d", run, splitSize)
                    .isEqualTo(skipHeader ? rows.subList(1, rows.size()) : rows);
        }
    }

    private static String randomField(Random random, char delimiter) {
        String alphabet = "ab é\"" + delimiter;
        int length = random.nextInt(4) == 0 ? 0 : random.nextInt(8);
        StringBuilder field = new StringBuilder();
        for (int i = 0; i < length; i++) {
            field.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return field.toString();
    }

    /** Quotes fields that need it (and some that do not); a lone empty field is quoted so the line is not empty. */
    private static String encode(List<List<String>> rows, char delimiter, Random random) {
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            for (int f = 0; f < row.size(); f++) {
                String field = row.get(f);
                if (f > 0) {
                    text.append(delimiter);
                }
                boolean mustQuote = field.indexOf('"') >= 0 || field.indexOf(delimiter) >= 0
                        || (row.size() == 1 && field.isEmpty());
                if (mustQuote || random.nextInt(5) == 0) {
                    text.append('"').append(field.replace("\"", "\"\"")).append('"');
                } else {
                    text.append(field);
                }
            }
            if (r < rows.size() - 1 || random.nextBoolean()) {
                text.append(random.nextBoolean() ? "\r\n" : "\n");
            }
        }
        return text.toString();
    }

    @Test
    void describesTheConfigurationAndProducesStringLists() {
        CsvFileSource tabs = new CsvFileSource("/in/data.tsv", '\t', true, 1024);

        assertThat(tabs.description()).isEqualTo("csv(/in/data.tsv,delimiter=U+0009,skipHeader=true,splitSize=1024)");
        assertThat(new CsvFileSource("/in/x.csv").description())
                .isEqualTo("csv(/in/x.csv,delimiter=',',skipHeader=false,splitSize=33554432)");
        assertThat(tabs.producedType().description()).isEqualTo(Types.list(Types.STRING).description());
    }

    @Test
    void rejectsQuoteOrLineEndAsDelimiter() {
        assertThatThrownBy(() -> new CsvFileSource("/x", '"', false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CsvFileSource("/x", '\n', false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void missingPathFailsWhenTheEnumeratorIsCreated() {
        CsvFileSource source = new CsvFileSource(dir.resolve("missing").toString());

        assertThatThrownBy(() -> source.createEnumerator(new RecordingEnumeratorContext<>(1)))
                .hasMessage("input path not found: " + dir.resolve("missing"));
    }

    @Test
    void enumeratorStateRoundTrips() throws Exception {
        Path file = Files.writeString(dir.resolve("s.csv"), "a,b\nc,d\ne,f\n");
        CsvFileSource source = new CsvFileSource(file.toString(), ',', false, 4);
        RecordingEnumeratorContext<FileSplit> context = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> enumerator = source.createEnumerator(context);
        enumerator.handleSplitRequest(0);

        RecordingEnumeratorContext<FileSplit> restoredContext = new RecordingEnumeratorContext<>(1);
        SplitEnumerator<FileSplit> restored = source.restoreEnumerator(restoredContext, enumerator.snapshotState(1));
        restored.handleSplitRequest(0);
        restored.handleSplitRequest(0);
        restored.handleSplitRequest(0);

        assertThat(restoredContext.assigned).containsExactly(new FileSplit(file.toString(), 4, 4),
                new FileSplit(file.toString(), 8, 4));
        assertThat(restoredContext.events.peekLast().split()).isNull();
    }
}
