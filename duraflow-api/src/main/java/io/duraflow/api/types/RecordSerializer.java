package io.duraflow.api.types;

import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * {@link Types#record}'s serializer: the components in declaration order, each with {@link
 * Types#forComponent}'s serializer (a {@code long} as {@link Types#LONG} writes it, and so on).
 *
 * <p>Each component is read from a record by an accessor function made once per record class
 * ({@link LambdaMetafactory}): a {@code long}, {@code int} or {@code double} component is written
 * without boxing, through a call the JIT compiles like any interface call, where a method handle
 * held in a field is neither inlined nor free of boxing. A record class whose accessors cannot be
 * reached that way (a package a module does not open) falls back to method handles. Records are
 * built with the canonical constructor.
 */
final class RecordSerializer<R extends Record> extends Types.Simple<R> {
    private final Component[] components;
    private final MethodHandle constructor;

    RecordSerializer(Class<R> type) {
        super(describe(type));
        RecordComponent[] parts = type.getRecordComponents();
        components = new Component[parts.length];
        Class<?>[] parameterTypes = new Class<?>[parts.length];
        try {
            MethodHandles.Lookup lookup = lookupIn(type);
            for (int i = 0; i < parts.length; i++) {
                parts[i].getAccessor().setAccessible(true);
                components[i] = component(lookup, type, parts[i]);
                parameterTypes[i] = parts[i].getType();
            }
            var ctor = type.getDeclaredConstructor(parameterTypes);
            ctor.setAccessible(true);
            constructor = MethodHandles.lookup().unreflectConstructor(ctor)
                    .asSpreader(Object[].class, parts.length)
                    .asType(MethodType.methodType(Object.class, Object[].class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("cannot serialize record " + type.getName() + ": " + e.getMessage()
                    + " (make the record public, or write a TypeSerializer)", e);
        }
    }

    private static String describe(Class<?> type) {
        StringBuilder sb = new StringBuilder("record(").append(type.getName());
        for (RecordComponent part : type.getRecordComponents()) {
            sb.append(',').append(part.getName()).append(':').append(part.getType().getName());
        }
        return sb.append(')').toString();
    }

    /** A lookup with private access to {@code type}, for the accessor functions; null if it has none. */
    private static MethodHandles.Lookup lookupIn(Class<?> type) {
        try {
            return MethodHandles.privateLookupIn(type, MethodHandles.lookup());
        } catch (IllegalAccessException | SecurityException e) {
            return null;
        }
    }

    private static Component component(MethodHandles.Lookup lookup, Class<?> type, RecordComponent part)
            throws IllegalAccessException {
        Class<?> valueType = part.getType();
        TypeSerializer<Object> serializer = Types.forComponent(valueType);
        MethodHandle getter = MethodHandles.lookup().unreflect(part.getAccessor());
        if (lookup != null) {
            try {
                MethodHandle direct = lookup.unreflect(part.getAccessor());
                if (valueType == long.class) {
                    return new LongComponent(accessor(lookup, ToLongFunction.class, "applyAsLong", direct, type));
                } else if (valueType == int.class) {
                    return new IntComponent(accessor(lookup, ToIntFunction.class, "applyAsInt", direct, type));
                } else if (valueType == double.class) {
                    return new DoubleComponent(accessor(lookup, ToDoubleFunction.class, "applyAsDouble", direct,
                            type));
                }
                return new ObjectComponent(accessor(lookup, Function.class, "apply", direct, type), serializer);
            } catch (Throwable e) {
                if (e instanceof VirtualMachineError error) {
                    throw error;
                }
                // no accessor function for this class (a lookup without full privileges, say: a
                // record of a job's own class loader): the method handle below
            }
        }
        MethodHandle generic = getter.asType(MethodType.methodType(Object.class, Object.class));
        return new ObjectComponent(record -> {
            try {
                return (Object) generic.invokeExact(record);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("cannot read component " + part.getName() + " of " + record, t);
            }
        }, serializer);
    }

    /**
     * An instance of {@code function} whose one abstract method, {@code method}, calls {@code
     * getter} (a primitive's box for {@link Function}).
     */
    @SuppressWarnings("unchecked")
    private static <F> F accessor(MethodHandles.Lookup lookup, Class<F> function, String method, MethodHandle getter,
            Class<?> type) throws Throwable {
        Class<?> returned = getter.type().returnType();
        boolean generic = function == Function.class;
        MethodType erased = MethodType.methodType(generic ? Object.class : returned, Object.class);
        MethodType instantiated = MethodType.methodType(
                generic ? MethodType.methodType(returned).wrap().returnType() : returned, type);
        return (F) LambdaMetafactory.metafactory(lookup, method, MethodType.methodType(function), erased, getter,
                instantiated).getTarget().invoke();
    }

    @Override
    public void write(R value, DataWriter out) {
        for (Component component : components) {
            component.write(value, out);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public R read(DataReader in) {
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            values[i] = components[i].read(in);
        }
        try {
            return (R) (Object) constructor.invokeExact(values);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot construct record", t);
        }
    }

    /** One component: how it is read from a record and written, and read back. */
    private abstract static class Component {
        abstract void write(Object record, DataWriter out);

        abstract Object read(DataReader in);
    }

    /** As {@link Types#LONG}. */
    private static final class LongComponent extends Component {
        private final ToLongFunction<Object> accessor;

        LongComponent(ToLongFunction<Object> accessor) {
            this.accessor = accessor;
        }

        @Override
        void write(Object record, DataWriter out) {
            out.writeSignedVarLong(accessor.applyAsLong(record));
        }

        @Override
        Object read(DataReader in) {
            return in.readSignedVarLong();
        }
    }

    /** As {@link Types#INT}. */
    private static final class IntComponent extends Component {
        private final ToIntFunction<Object> accessor;

        IntComponent(ToIntFunction<Object> accessor) {
            this.accessor = accessor;
        }

        @Override
        void write(Object record, DataWriter out) {
            out.writeSignedVarLong(accessor.applyAsInt(record));
        }

        @Override
        Object read(DataReader in) {
            return (int) in.readSignedVarLong();
        }
    }

    /** As {@link Types#DOUBLE}. */
    private static final class DoubleComponent extends Component {
        private final ToDoubleFunction<Object> accessor;

        DoubleComponent(ToDoubleFunction<Object> accessor) {
            this.accessor = accessor;
        }

        @Override
        void write(Object record, DataWriter out) {
            out.writeDouble(accessor.applyAsDouble(record));
        }

        @Override
        Object read(DataReader in) {
            return in.readDouble();
        }
    }

    /** Any other component, through its serializer. */
    private static final class ObjectComponent extends Component {
        private final Function<Object, Object> accessor;
        private final TypeSerializer<Object> serializer;

        ObjectComponent(Function<Object, Object> accessor, TypeSerializer<Object> serializer) {
            this.accessor = accessor;
            this.serializer = serializer;
        }

        @Override
        void write(Object record, DataWriter out) {
            serializer.write(accessor.apply(record), out);
        }

        @Override
        Object read(DataReader in) {
            return serializer.read(in);
        }
    }
}
