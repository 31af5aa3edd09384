package io.duraflow.state.backend;

/** Called for each timer that fires, with the timer's key already set as the backend's current key. */
@FunctionalInterface
public interface TimerCallback<K> {
    void onTimer(K key, long time) throws Exception;
}
