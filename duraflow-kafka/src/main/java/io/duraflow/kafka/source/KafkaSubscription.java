package io.duraflow.kafka.source;

import io.duraflow.api.types.CorruptDataException;
import io.duraflow.api.types.DataReader;
import io.duraflow.api.types.DataWriter;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which topics a {@link KafkaSource} reads: a fixed list, or every topic whose whole name matches
 * a pattern. The enumerator checkpoints the subscription it had, so that after a restore into a
 * job whose subscription changed it can tell a topic added to the subscription (read from the
 * configured starting offsets) from a topic created while the job was down (read from the
 * earliest offset); the readers drop checkpointed partitions of topics no longer subscribed.
 */
sealed interface KafkaSubscription {
    boolean matches(String topic);

    /** For the plan fingerprint and messages: {@code topics=[a, b]} or {@code pattern=orders-.*}. */
    String description();

    void write(DataWriter out);

    /** A fixed list of topics; each must exist when the source starts. */
    record Topics(List<String> names) implements KafkaSubscription {
        public Topics {
            names = List.copyOf(names);
        }

        @Override
        public boolean matches(String topic) {
            return names.contains(topic);
        }

        @Override
        public String description() {
            return "topics=" + names;
        }

        @Override
        public void write(DataWriter out) {
            out.writeByte(0);
            out.writeVarInt(names.size());
            names.forEach(out::writeString);
        }
    }

    /** Every topic whose whole name matches, internal topics (names starting with '__') excepted. */
    record TopicPattern(Pattern pattern) implements KafkaSubscription {
        @Override
        public boolean matches(String topic) {
            return !topic.startsWith("__") && pattern.matcher(topic).matches();
        }

        @Override
        public String description() {
            return "pattern=" + pattern.pattern() + (pattern.flags() == 0 ? "" : "/flags=" + pattern.flags());
        }

        @Override
        public void write(DataWriter out) {
            out.writeByte(1);
            out.writeString(pattern.pattern());
            out.writeVarInt(pattern.flags());
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof TopicPattern that && pattern.pattern().equals(that.pattern.pattern())
                    && pattern.flags() == that.pattern.flags();
        }

        @Override
        public int hashCode() {
            return pattern.pattern().hashCode() * 31 + pattern.flags();
        }
    }

    static KafkaSubscription read(DataReader in) {
        byte kind = in.readByte();
        switch (kind) {
            case 0 -> {
                int count = in.readVarInt();
                String[] names = new String[Math.min(count, in.remaining())];
                if (names.length != count) {
                    throw new CorruptDataException(count + " topic names in " + in.remaining() + " bytes");
                }
                for (int i = 0; i < count; i++) {
                    names[i] = in.readString();
                }
                return new Topics(List.of(names));
            }
            case 1 -> {
                String regex = in.readString();
                int flags = in.readVarInt();
                try {
                    return new TopicPattern(Pattern.compile(regex, flags));
                } catch (IllegalArgumentException e) {
                    throw new CorruptDataException("bad topic pattern '" + regex + "': " + e.getMessage(), e);
                }
            }
            default -> throw new CorruptDataException("unknown subscription kind " + kind);
        }
    }
}
