/* listbox.c: selection, scrolling and paging of a list (see listbox.h). */
#include "sparkplan/listbox.h"

#include <limits.h>

void listbox_show_sel(struct listbox *lb)
{
    size_t rows = lb->rows ? lb->rows : 1;
    if (lb->sel < lb->top)
        lb->top = lb->sel;
    else if (lb->sel >= lb->top + rows)
        lb->top = lb->sel - rows + 1;
}

void listbox_move(struct listbox *lb, long delta)
{
    if (lb->n == 0)
        return;
    long last = (long)lb->n - 1;
    long s;
    if (delta >= LONG_MAX / 2 || delta <= -LONG_MAX / 2)
        s = delta > 0 ? last : 0;
    else
        s = (long)lb->sel + delta;
    lb->sel = (size_t)(s < 0 ? 0 : s > last ? last : s);
    listbox_show_sel(lb);
}

void listbox_scroll(struct listbox *lb, long delta)
{
    long max = (long)lb->n - (long)lb->rows;
    long top = (long)lb->top + delta;
    if (top > max)
        top = max;
    lb->top = (size_t)(top < 0 ? 0 : top);
}

long listbox_page(const struct listbox *lb)
{
    return lb->rows > 1 ? (long)lb->rows - 1 : 1;
}

long listbox_delta(const struct listbox *lb, enum key_action a)
{
    long page = lb->page_whole ? (long)(lb->rows ? lb->rows : 1) : listbox_page(lb);
    switch (a) {
    case KA_DOWN:
        return 1;
    case KA_UP:
        return -1;
    case KA_PAGE_DOWN:
        return page;
    case KA_PAGE_UP:
        return -page;
    case KA_FIRST:
        return -LONG_MAX;
    case KA_LAST:
        return LONG_MAX;
    case KA_WHEEL_DOWN:
        return 3;
    case KA_WHEEL_UP:
        return -3;
    default:
        return 0;
    }
}
