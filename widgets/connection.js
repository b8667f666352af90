// Whether a view is live: connected to its model in a running kernel.
//
// bundle() (minitorch/widgets/frontend.py) wraps every widget's render with liveRender.
// A live view's element carries the class "mt-live". When the kernel restarts,
// ipywidgets marks each model's connection dead and says so ("comm_live_update"); the view
// then drops the class, and the static picture written beside it (its "twin") shows
// instead, by the twin's own CSS rules (TWIN_STYLE in frontend.py). A reopened notebook
// without a kernel's models has no live view at all, so there the picture shows too.

export function liveRender(render) {
  return (context) => {
    const { model, el } = context;
    el.classList.add("mt-live");
    model.on("comm_live_update", () => el.classList.remove("mt-live"));
    return render(context);
  };
}
