/**
 * User function interfaces. Functions never travel as serialized objects: every process builds
 * the same plan from the job class, so lambdas and anonymous classes are fine.
 */
package io.duraflow.api.functions;
