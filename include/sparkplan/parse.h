/* parse: lines of doc->text → plans, sections and nodes of the model.
 *
 * Owns nothing: it tells the plan builder (build.h) what it reads; everything built is
 * allocated in doc->arena and points into doc->src.text.
 * Reads every explain mode (simple, extended, formatted, cost, codegen, AQE), several plans
 * per input, headerless trees.  An explicit stack, no recursion; linear time.
 * Returns SP_ERR_NO_PLAN (err->message "no Spark plan found") when nothing parsed.
 */
#ifndef SPARKPLAN_PARSE_H
#define SPARKPLAN_PARSE_H

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

enum sp_status parse_document(struct document *doc, struct diag *err);

#endif
