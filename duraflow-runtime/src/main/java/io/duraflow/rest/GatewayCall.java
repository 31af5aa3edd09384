package io.duraflow.rest;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/** Calls a unary method of a gRPC service implementation in-process and returns its answer as a future. */
final class GatewayCall {
    private GatewayCall() {}

    static <Q, A> CompletableFuture<A> call(BiConsumer<Q, StreamObserver<A>> method, Q request) {
        CompletableFuture<A> answer = new CompletableFuture<>();
        try {
            method.accept(request, new StreamObserver<>() {
                @Override
                public void onNext(A value) {
                    answer.complete(value);
                }

                @Override
                public void onError(Throwable error) {
                    answer.completeExceptionally(error);
                }

                @Override
                public void onCompleted() {
                    if (!answer.isDone()) {
                        answer.completeExceptionally(new IllegalStateException("the gateway answered nothing"));
                    }
                }
            });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }
}
