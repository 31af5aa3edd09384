package io.duraflow.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The set of known configuration options, collected from the {@code public static final
 * ConfigOption} fields of holder classes. A key that is not known is an error with a suggestion,
 * so a typo never silently falls back to a default.
 *
 * <p>{@link #global()} holds the options of this module ({@link #CORE_HOLDERS}); other modules add
 * their holders with {@link #register(Class)} before reading configuration. Tests that need their
 * own options build an isolated registry with {@link #of(Class...)}.
 *
 * <p>Thread-safe: registration is synchronized and publishes an immutable snapshot.
 */
public final class ConfigRegistry {
    /** The holder classes of {@code duraflow-core}; the one place that lists them. */
    public static final List<Class<?>> CORE_HOLDERS = List.of(
            ClusterOptions.class, JobManagerOptions.class, TaskManagerOptions.class, MetricOptions.class, ExecutionOptions.class,
            HighAvailabilityOptions.class, CleanupOptions.class, JobRecoveryOptions.class,
            CheckpointingOptions.class, FileMergingOptions.class, StateOptions.class, NetworkOptions.class,
            RestOptions.class);

    private static final ConfigRegistry GLOBAL = of(CORE_HOLDERS.toArray(new Class<?>[0]));

    /** Options by key; replaced, never modified, so readers need no lock. */
    private volatile TreeMap<String, ConfigOption<?>> options = new TreeMap<>();

    private ConfigRegistry() {
    }

    /** The registry that {@link Configuration#fromMap(java.util.Map)} and {@link ConfigLoader} use by default. */
    public static ConfigRegistry global() {
        return GLOBAL;
    }

    /** Adds a holder class's options to {@link #global()}; registering a holder again does nothing. */
    public static void register(Class<?> holder) {
        GLOBAL.addHolder(holder);
    }

    /** A registry with just the options of the given holders. */
    public static ConfigRegistry of(Class<?>... holders) {
        ConfigRegistry registry = new ConfigRegistry();
        for (Class<?> holder : holders) {
            registry.addHolder(holder);
        }
        return registry;
    }

    /**
     * Adds the {@code public static final ConfigOption} fields of {@code holder}.
     *
     * @throws IllegalStateException if another option already uses one of the keys
     */
    public synchronized ConfigRegistry addHolder(Class<?> holder) {
        TreeMap<String, ConfigOption<?>> updated = new TreeMap<>(options);
        for (ConfigOption<?> option : optionsOf(holder)) {
            ConfigOption<?> existing = updated.putIfAbsent(option.key(), option);
            if (existing != null && existing != option) {
                throw new IllegalStateException("configuration key '" + option.key() + "' of "
                        + holder.getName() + " is already declared by another option");
            }
        }
        options = updated;
        return this;
    }

    private static List<ConfigOption<?>> optionsOf(Class<?> holder) {
        List<ConfigOption<?>> found = new ArrayList<>();
        for (Field field : holder.getFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                try {
                    found.add((ConfigOption<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read option field " + field, e);
                }
            }
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException(holder.getName()
                    + " has no public static final ConfigOption fields; is it an option holder?");
        }
        return found;
    }

    /** The option with this key, if known. */
    public Optional<ConfigOption<?>> find(String key) {
        return Optional.ofNullable(options.get(key));
    }

    /**
     * The option with this key.
     *
     * @throws IllegalConfigurationException if the key is unknown, suggesting a close key
     */
    public ConfigOption<?> lookup(String key) {
        return lookup(key, null);
    }

    /**
     * As {@link #lookup(String)}.
     *
     * @param source where the key came from (a file path, {@code "-D"}), or null; named in the message
     */
    public ConfigOption<?> lookup(String key, String source) {
        ConfigOption<?> option = options.get(key);
        if (option != null) {
            return option;
        }
        String from = source == null ? "" : " (from " + source + ")";
        String hint = suggest(key).map(s -> "; did you mean '" + s + "'?")
                .orElse("; run 'duraflow config' to list the options");
        throw new IllegalConfigurationException(
                "unknown configuration key '" + ConfigOption.oneLine(key) + "'" + from + hint);
    }

    /**
     * A known key close to {@code unknown}: the closest by edit distance if within about a quarter
     * of its length (at most 3 edits), else the only key ending in {@code "." + unknown}.
     */
    Optional<String> suggest(String unknown) {
        int threshold = Math.min(3, Math.max(1, unknown.length() / 4));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String key : options.keySet()) {
            int distance = EditDistance.between(unknown, key, threshold);
            if (distance < bestDistance) {
                best = key;
                bestDistance = distance;
            }
        }
        if (best != null && bestDistance <= threshold && bestDistance < unknown.length()) {
            return Optional.of(best);
        }
        List<String> suffixMatches = options.keySet().stream().filter(k -> k.endsWith("." + unknown)).toList();
        return suffixMatches.size() == 1 ? Optional.of(suffixMatches.get(0)) : Optional.empty();
    }

    /** All known options, sorted by key. */
    public Collection<ConfigOption<?>> options() {
        return Collections.unmodifiableCollection(options.values());
    }

    /** All options as a text table with columns key, type, default and description, for {@code duraflow config}. */
    public String renderTable() {
        return OptionTable.render(options.values());
    }
}
