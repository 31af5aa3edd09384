package io.duraflow.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Writes snapshots as the endpoint does (the client's text writer) and reads them back strictly. */
public final class TextFormat {
    private TextFormat() {}

    public static String write(MetricSnapshots snapshots) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(out, snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    public static Map<String, PrometheusText.Family> roundTrip(MetricSnapshots snapshots) {
        return PrometheusText.parse(write(snapshots));
    }
}
