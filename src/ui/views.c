/* views.c: the registry of views (see view.h).  Adding a view: its id in enum view_id,
 * its module, one line here. */
#include "sparkplan/view.h"

extern const struct view_ops view_queries, view_apps;
extern const struct view_ops view_tree, view_details, view_help, view_docs, view_findings,
    view_ids, view_walk, view_search, view_goto, view_paste, view_diff, view_picker;

const struct view_ops *const view_registry[VIEW_COUNT] = {
    [VIEW_TREE] = &view_tree,
    [VIEW_DETAILS] = &view_details,
    [VIEW_HELP] = &view_help,
    [VIEW_DOCS] = &view_docs,
    [VIEW_QUERIES] = &view_queries,
    [VIEW_APPS] = &view_apps,
    [VIEW_FINDINGS] = &view_findings,
    [VIEW_IDS] = &view_ids,
    [VIEW_WALK] = &view_walk,
    [VIEW_SEARCH] = &view_search,
    [VIEW_GOTO] = &view_goto,
    [VIEW_PASTE] = &view_paste,
    [VIEW_DIFF] = &view_diff,
    [VIEW_PICKER] = &view_picker,
};
