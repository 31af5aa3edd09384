package io.duraflow.api.functions;

/** Produces the output of an equi-join for one matching pair of records. */
@FunctionalInterface
public interface JoinFunction<L, R, O> {
    O join(L left, R right) throws Exception;
}
