/**
 * Event time inside a task: combining the watermarks of several inputs (a source reader's splits,
 * an input gate's channels, an operator's inputs) into one ({@link io.duraflow.eventtime.WatermarkCombiner}),
 * and a source reader's watermarks per split from the job's {@code WatermarkStrategy}
 * ({@link io.duraflow.eventtime.SplitWatermarks}).
 */
package io.duraflow.eventtime;
