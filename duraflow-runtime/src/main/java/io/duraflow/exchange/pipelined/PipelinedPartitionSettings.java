package io.duraflow.exchange.pipelined;

import io.duraflow.config.Configuration;
import io.duraflow.config.NetworkOptions;
import java.time.Duration;
import java.util.Objects;

/**
 * How a pipelined result partition uses network memory and when it sends partly filled buffers.
 *
 * @param buffersPerSubpartition buffers the partition may fill per subpartition before its output
 *     is unavailable (backpressure); the partition's share is this times its subpartitions
 * @param overdraftBuffers buffers beyond the share for the record being processed
 * @param bufferTimeout longest time a record waits in a partly filled buffer; zero sends after every record
 */
public record PipelinedPartitionSettings(int buffersPerSubpartition, int overdraftBuffers, Duration bufferTimeout) {
    public PipelinedPartitionSettings {
        if (buffersPerSubpartition < 1) {
            throw new IllegalArgumentException("buffersPerSubpartition must be >= 1, got " + buffersPerSubpartition);
        }
        if (overdraftBuffers < 0) {
            throw new IllegalArgumentException("overdraftBuffers must be >= 0, got " + overdraftBuffers);
        }
        Objects.requireNonNull(bufferTimeout, "bufferTimeout");
        if (bufferTimeout.isNegative()) {
            throw new IllegalArgumentException("bufferTimeout must not be negative, got " + bufferTimeout);
        }
    }

    public static PipelinedPartitionSettings fromConfiguration(Configuration configuration) {
        return new PipelinedPartitionSettings(configuration.get(NetworkOptions.BUFFERS_PER_SUBPARTITION),
                configuration.get(NetworkOptions.OVERDRAFT_BUFFERS), configuration.get(NetworkOptions.BUFFER_TIMEOUT));
    }
}
