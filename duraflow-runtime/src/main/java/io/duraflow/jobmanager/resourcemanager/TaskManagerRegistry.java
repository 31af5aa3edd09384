package io.duraflow.jobmanager.resourcemanager;

import io.duraflow.rpc.proto.HeldPartition;
import io.duraflow.rpc.proto.HeldTask;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is registered: each TaskManager's current registration (address, slots, the TaskManager's
 * id of the registration), how a registration begins, repeats or replaces the one in place, and
 * how it ends (lost). A TaskManager whose address is not {@code host:port} is refused before
 * anything is registered.
 *
 * <p>The other parts of the {@link ResourceManager} (slots, heartbeats, kept tasks, the
 * connection) follow each registration through a {@link Lifecycle}: a registration that ends is
 * dropped everywhere before the {@link ResourceManager.LossListener}s hear of it, and a new one is
 * in place everywhere before the registration listeners hear of it, so a listener that asks the
 * resource manager anything sees one consistent state.
 *
 * <p>Main thread only (the JobManager's {@link io.duraflow.mailbox.Mailbox}); no locks.
 */
final class TaskManagerRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerRegistry.class);

    /**
     * One registration of a TaskManager. Compared by identity where it matters: a call made to one
     * registration says nothing about the next one of the same TaskManager.
     *
     * @param registrationId the TaskManager's id of this registration; empty: unknown (every
     *     registration is new)
     */
    record Registration(String tmId, String address, int slots, String registrationId) {}

    /** What the other parts of the resource manager do as registrations begin and end. */
    interface Lifecycle {
        /** The TaskManager registered again in the registration in place: it lives. */
        void renewed(String tmId);

        /** A registration begins; before anyone is told of it. */
        void began(Registration registration, List<HeldPartition> held, List<HeldTask> keptTasks);

        /** A registration ended (lost, or replaced by a new one); before the loss listeners are told. */
        void ended(String tmId);
    }

    private final Lifecycle lifecycle;
    private final Map<String, Registration> registrations = new LinkedHashMap<>();
    private final List<ResourceManager.LossListener> lossListeners = new ArrayList<>();
    private final List<BiConsumer<String, List<HeldPartition>>> registrationListeners = new ArrayList<>();

    TaskManagerRegistry(Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    void addLossListener(ResourceManager.LossListener listener) {
        lossListeners.add(listener);
    }

    void addRegistrationListener(BiConsumer<String, List<HeldPartition>> listener) {
        registrationListeners.add(listener);
    }

    /**
     * Registers a TaskManager (see {@link ResourceManager#register(String, String, int, List,
     * String, List)}).
     *
     * @return whether a new registration began (false: it repeated the one in place)
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for an address that is not host:port
     */
    boolean register(String tmId, String address, int slots, List<HeldPartition> held, String registrationId,
            List<HeldTask> keptTasks) {
        TaskManagerAddresses.port(tmId, address);
        Registration current = registrations.get(tmId);
        if (current != null && !registrationId.isEmpty() && registrationId.equals(current.registrationId())
                && address.equals(current.address()) && slots == current.slots()) {
            LOG.info("TaskManager {} at {} registered again in the same registration {} (its first answer came"
                    + " too late for it): already registered, nothing changes", tmId, address, registrationId);
            lifecycle.renewed(tmId);
            return false;
        }
        if (registrations.remove(tmId) != null) {
            lifecycle.ended(tmId);
            notifyLost(tmId);
        }
        Registration registered = new Registration(tmId, address, slots, registrationId);
        registrations.put(tmId, registered);
        lifecycle.began(registered, held, keptTasks);
        LOG.info("TaskManager {} at {} registered with {} slots, {} kept partitions and {} kept running tasks ({}"
                + " TaskManagers)", tmId, address, slots, held.size(), keptTasks.size(), registrations.size());
        registrationListeners.forEach(listener -> listener.accept(tmId, held));
        return true;
    }

    /** Forgets a TaskManager and tells the jobs; it registers again if it is still alive. */
    void lose(String tmId, String why) {
        if (registrations.remove(tmId) == null) {
            return;
        }
        LOG.warn("TaskManager {} is lost: {}", tmId, why);
        lifecycle.ended(tmId);
        notifyLost(tmId);
    }

    private void notifyLost(String tmId) {
        for (ResourceManager.LossListener listener : lossListeners) {
            listener.taskManagerLost(tmId);
        }
    }

    /** The TaskManager's registration in place, or null. */
    Registration current(String tmId) {
        return registrations.get(tmId);
    }

    boolean isRegistered(String tmId) {
        return registrations.containsKey(tmId);
    }

    /** host:port of a registered TaskManager, or null. */
    String address(String tmId) {
        Registration registration = registrations.get(tmId);
        return registration == null ? null : registration.address();
    }

    /** The registrations in place, in the order they began. */
    Collection<Registration> registrations() {
        return List.copyOf(registrations.values());
    }

    /** Forgets every registration without telling anyone: the leadership ends. */
    void clear() {
        registrations.clear();
    }
}
