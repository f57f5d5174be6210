/* evtask: reads the fields of a SparkListenerTaskEnd line the metrics need, without building
 * a JSON tree.  TaskEnd is ~85 % of a log's bytes; a general JSON parser spends most of its
 * time allocating and freeing the nodes of fields nobody reads ("Task Metrics", "Task
 * Executor Metrics"), so this scanner walks the line's tokens, keeps Stage ID, Stage Attempt
 * ID and Task Info's Task ID, Index, Finish Time, Failed, Killed and each accumulable's ID
 * and Update, and stops once Task Info is read.
 * Owns: the arrays of struct evtask (grown as needed; evtask_free releases them).
 * Never: allocates per field, recurses (nesting is counted, not followed).  A line it cannot
 * read returns false and the caller parses it with cJSON instead.
 */
#ifndef SPARKPLAN_EVTASK_H
#define SPARKPLAN_EVTASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evtask {
    int64_t stage, attempt, task_id, index, finish_time;
    bool failed, killed;
    int64_t *acc_ids, *updates;  /* accumulables with a whole-number Update */
    size_t n, cap;
};

bool evtask_scan(const char *line, size_t len, struct evtask *t);
void evtask_free(struct evtask *t);

#endif
