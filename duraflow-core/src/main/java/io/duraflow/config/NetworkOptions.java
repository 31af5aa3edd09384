package io.duraflow.config;

import java.time.Duration;

/**
 * Options of pipelined exchanges (streaming): the network memory of a TaskManager, how it is
 * shared between result partitions and input gates, and how long a partly filled buffer may wait
 * before it is sent.
 */
public final class NetworkOptions {
    public static final ConfigOption<MemorySize> NETWORK_MEMORY = ConfigOption.key("taskmanager.network.memory")
            .memoryType()
            .defaultValue(MemorySize.ofMebiBytes(64))
            .validator(ConfigValidator.positiveMemory())
            .description("Memory of a task manager for the buffers of pipelined exchanges (the records in flight"
                    + " between streaming tasks); result partitions and input gates take their shares of it, so a"
                    + " slow consumer slows its producers down instead of growing memory.");

    public static final ConfigOption<MemorySize> BUFFER_SIZE = ConfigOption.key("taskmanager.network.buffer-size")
            .memoryType()
            .defaultValue(MemorySize.ofKibiBytes(32))
            .validator(ConfigValidator.of(size -> size.bytes() >= 1024 && size.bytes() <= (1 << 26),
                    "between 1 KiB and 64 MiB"))
            .description("Size of one network buffer, the unit that is sent, credited and recycled; a record larger"
                    + " than a buffer travels in a buffer of its own outside the network memory.");

    public static final ConfigOption<Integer> BUFFERS_PER_CHANNEL =
            ConfigOption.key("taskmanager.network.buffers-per-channel")
                    .intType()
                    .defaultValue(4)
                    .validator(ConfigValidator.intRange(1, 1024))
                    .description("Receive buffers each remote input channel holds; the receiver grants the producer one"
                            + " credit per free receive buffer, so this bounds the data in flight per channel.");

    public static final ConfigOption<Integer> BUFFERS_PER_SUBPARTITION =
            ConfigOption.key("taskmanager.network.buffers-per-subpartition")
                    .intType()
                    .defaultValue(4)
                    .validator(ConfigValidator.intRange(1, 1024))
                    .description("Buffers a pipelined result partition may fill per subpartition before its task is"
                            + " backpressured (its output is unavailable until a consumer frees buffers).");

    public static final ConfigOption<Integer> OVERDRAFT_BUFFERS =
            ConfigOption.key("taskmanager.network.overdraft-buffers")
                    .intType()
                    .defaultValue(5)
                    .validator(ConfigValidator.intRange(0, 1024))
                    .description("Buffers a result partition may take beyond its share, so that the record being"
                            + " processed when the output became unavailable can finish without blocking.");

    public static final ConfigOption<Duration> PARTITION_REQUEST_TIMEOUT =
            ConfigOption.key("taskmanager.network.partition-request.timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .validator(ConfigValidator.positiveDuration())
                    .description("How long a task manager waits for a pipelined partition a consumer asks for to be"
                            + " created (producer and consumer are deployed at the same time) before it answers"
                            + " that the partition is not there.");

    public static final ConfigOption<Duration> BUFFER_TIMEOUT = ConfigOption.key("execution.buffer-timeout")
            .durationType()
            .defaultValue(Duration.ofMillis(100))
            .validator(ConfigValidator.nonNegativeDuration())
            .description("Longest time a record waits in a partly filled network buffer before the buffer is sent;"
                    + " 0 sends after every record (lowest latency, lowest throughput).");

    private NetworkOptions() {
    }
}
