/**
 * Event time: where a record's timestamp comes from ({@link TimestampAssigner}) and how far a
 * stream's event time has progressed ({@link WatermarkGenerator}, which emits watermarks: the
 * promise that no record with a timestamp at or below it follows). A {@link WatermarkStrategy}
 * bundles both for a source or a flow. Sources generate watermarks per split and the runtime
 * combines them (the minimum over the splits that are neither idle nor finished), so one slow
 * split holds event time back and an idle one does not.
 */
package io.duraflow.api.eventtime;
