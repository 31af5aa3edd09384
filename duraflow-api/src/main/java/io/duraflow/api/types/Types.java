package io.duraflow.api.types;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Built-in serializers. */
public final class Types {
    private Types() {}

    public static final TypeSerializer<String> STRING = new Simple<>("string") {
        @Override
        public void write(String value, DataWriter out) {
            out.writeString(value);
        }

        @Override
        public String read(DataReader in) {
            return in.readString();
        }
    };

    /** A byte array: {@code varint length | bytes}. */
    public static final TypeSerializer<byte[]> BYTES = new Simple<>("bytes") {
        @Override
        public void write(byte[] value, DataWriter out) {
            out.writeVarInt(value.length);
            out.writeBytes(value);
        }

        @Override
        public byte[] read(DataReader in) {
            return in.readBytes(in.readVarInt());
        }
    };

    public static final TypeSerializer<Long> LONG = new Simple<>("long") {
        @Override
        public void write(Long value, DataWriter out) {
            out.writeSignedVarLong(value);
        }

        @Override
        public Long read(DataReader in) {
            return in.readSignedVarLong();
        }
    };

    public static final TypeSerializer<Integer> INT = new Simple<>("int") {
        @Override
        public void write(Integer value, DataWriter out) {
            out.writeSignedVarLong(value);
        }

        @Override
        public Integer read(DataReader in) {
            return (int) in.readSignedVarLong();
        }
    };

    public static final TypeSerializer<Double> DOUBLE = new Simple<>("double") {
        @Override
        public void write(Double value, DataWriter out) {
            out.writeDouble(value);
        }

        @Override
        public Double read(DataReader in) {
            return in.readDouble();
        }
    };

    public static final TypeSerializer<Boolean> BOOLEAN = new Simple<>("boolean") {
        @Override
        public void write(Boolean value, DataWriter out) {
            out.writeBoolean(value);
        }

        @Override
        public Boolean read(DataReader in) {
            return in.readBoolean();
        }
    };

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <A, B> TypeSerializer<Tuple2<A, B>> tuple(TypeSerializer<A> a, TypeSerializer<B> b) {
        if ((Object) a == LONG && (Object) b == LONG) {
            return (TypeSerializer) LONG_PAIR;
        }
        return new Simple<>("tuple2(" + a.description() + "," + b.description() + ")") {
            @Override
            public void write(Tuple2<A, B> value, DataWriter out) {
                a.write(value.f0(), out);
                b.write(value.f1(), out);
            }

            @Override
            public Tuple2<A, B> read(DataReader in) {
                return new Tuple2<>(a.read(in), b.read(in));
            }
        };
    }

    /**
     * {@code tuple(LONG, LONG)}, the same bytes and description, without two calls through the
     * TypeSerializer interface per field (every record of a keyed stream of long pairs).
     */
    private static final TypeSerializer<Tuple2<Long, Long>> LONG_PAIR = new Simple<>("tuple2(long,long)") {
        @Override
        public void write(Tuple2<Long, Long> value, DataWriter out) {
            out.writeSignedVarLong(value.f0());
            out.writeSignedVarLong(value.f1());
        }

        @Override
        public Tuple2<Long, Long> read(DataReader in) {
            long f0 = in.readSignedVarLong();
            return new Tuple2<>(f0, in.readSignedVarLong());
        }
    };

    public static <A, B, C> TypeSerializer<Tuple3<A, B, C>> tuple(
            TypeSerializer<A> a, TypeSerializer<B> b, TypeSerializer<C> c) {
        return new Simple<>("tuple3(" + a.description() + "," + b.description() + "," + c.description() + ")") {
            @Override
            public void write(Tuple3<A, B, C> value, DataWriter out) {
                a.write(value.f0(), out);
                b.write(value.f1(), out);
                c.write(value.f2(), out);
            }

            @Override
            public Tuple3<A, B, C> read(DataReader in) {
                return new Tuple3<>(a.read(in), b.read(in), c.read(in));
            }
        };
    }

    /** A serializer that also accepts null, at the cost of one byte. */
    public static <T> TypeSerializer<T> nullable(TypeSerializer<T> inner) {
        return new Simple<>("nullable(" + inner.description() + ")") {
            @Override
            public void write(T value, DataWriter out) {
                out.writeBoolean(value != null);
                if (value != null) {
                    inner.write(value, out);
                }
            }

            @Override
            public T read(DataReader in) {
                return in.readBoolean() ? inner.read(in) : null;
            }
        };
    }

    public static <T> TypeSerializer<List<T>> list(TypeSerializer<T> element) {
        return new Simple<>("list(" + element.description() + ")") {
            @Override
            public void write(List<T> value, DataWriter out) {
                out.writeVarInt(value.size());
                for (T item : value) {
                    element.write(item, out);
                }
            }

            @Override
            public List<T> read(DataReader in) {
                int size = in.readVarInt();
                List<T> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(element.read(in));
                }
                return Collections.unmodifiableList(list);
            }
        };
    }

    public static <E extends Enum<E>> TypeSerializer<E> enumOf(Class<E> type) {
        return new Simple<>("enum(" + type.getName() + ")") {
            @Override
            public void write(E value, DataWriter out) {
                out.writeString(value.name());
            }

            @Override
            public E read(DataReader in) {
                return Enum.valueOf(type, in.readString());
            }
        };
    }

    /**
     * One serializer per record class, kept with the class itself: a job's records are classes of
     * the job's class loader while this class is the process's, and a map from classes held here
     * would keep every job's loader, and all its classes, alive after the job ended. Building a
     * serializer builds those of nested records, each in its own class's slot.
     */
    private static final ClassValue<TypeSerializer<?>> RECORDS = new ClassValue<>() {
        @Override
        @SuppressWarnings("unchecked")
        protected TypeSerializer<?> computeValue(Class<?> type) {
            return new RecordSerializer<>((Class<Record>) type);
        }
    };

    /**
     * A serializer for a Java record whose components are strings, primitives or their boxes,
     * enums, or records of those. Reference-typed components may be null.
     */
    @SuppressWarnings("unchecked")
    public static <R extends Record> TypeSerializer<R> record(Class<R> type) {
        return (TypeSerializer<R>) RECORDS.get(type);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static TypeSerializer<Object> forComponent(Class<?> type) {
        if (type == String.class) {
            return (TypeSerializer) nullable(STRING);
        } else if (type == long.class) {
            return (TypeSerializer) LONG;
        } else if (type == Long.class) {
            return (TypeSerializer) nullable(LONG);
        } else if (type == int.class) {
            return (TypeSerializer) INT;
        } else if (type == Integer.class) {
            return (TypeSerializer) nullable(INT);
        } else if (type == double.class) {
            return (TypeSerializer) DOUBLE;
        } else if (type == Double.class) {
            return (TypeSerializer) nullable(DOUBLE);
        } else if (type == boolean.class) {
            return (TypeSerializer) BOOLEAN;
        } else if (type == Boolean.class) {
            return (TypeSerializer) nullable(BOOLEAN);
        } else if (type.isEnum()) {
            return (TypeSerializer) nullable(enumOf((Class<Enum>) type));
        } else if (type.isRecord()) {
            return (TypeSerializer) nullable(record((Class<Record>) type));
        }
        throw new IllegalArgumentException("no built-in serializer for record component type " + type.getName()
                + "; use String, primitives, enums or nested records, or write a TypeSerializer");
    }

    /** Base class carrying the description; equality is by description. */
    abstract static class Simple<T> implements TypeSerializer<T> {
        private final String description;

        Simple(String description) {
            this.description = description;
        }

        @Override
        public final String description() {
            return description;
        }

        @Override
        public String toString() {
            return description;
        }
    }
}
