// The Try-it figures of a chapter page, with no kernel and no widget library.
// When the notebook ran, it computed the figure for every setting of the
// controls; the build stored each one as an image file and wrote, where the
// widget was, a small JSON description (class "try-it-data"): the controls
// (a label, the option labels, the setting shown first, buttons or a slider)
// and, for each combination of settings ("i,j"), the image and the text the
// notebook printed with it. This script draws the controls and shows the
// stored frame of whatever the reader picks.
(function () {
  "use strict";
  var count = 0;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function buttons(control, id, pick) {
    var row = element("div", "try-it-control");
    var label = element("span", "try-it-label", control.label);
    label.id = id;
    var group = element("div", "try-it-buttons");
    group.setAttribute("role", "group");
    group.setAttribute("aria-labelledby", id);
    var all = control.options.map(function (option, index) {
      var button = element("button", "try-it-button", option);
      button.type = "button";
      button.addEventListener("click", function () {
        all.forEach(function (b, i) {
          b.setAttribute("aria-pressed", String(i === index));
        });
        pick(index);
      });
      button.setAttribute("aria-pressed", String(index === control.index));
      group.appendChild(button);
      return button;
    });
    row.appendChild(label);
    row.appendChild(group);
    return row;
  }

  function slider(control, id, pick) {
    var row = element("div", "try-it-control");
    var label = element("label", "try-it-label", control.label);
    label.htmlFor = id;
    var input = element("input", "try-it-slider");
    input.type = "range";
    input.id = id;
    input.min = "0";
    input.max = String(control.options.length - 1);
    input.step = "1";
    input.value = String(control.index);
    var value = element("output", "try-it-value");
    value.htmlFor = id;
    function update() {
      var index = Number(input.value);
      value.textContent = control.options[index];
      input.setAttribute("aria-valuetext", control.options[index]);
      pick(index);
    }
    input.addEventListener("input", update);
    value.textContent = control.options[control.index];
    input.setAttribute("aria-valuetext", control.options[control.index]);
    row.appendChild(label);
    row.appendChild(input);
    row.appendChild(value);
    return row;
  }

  function draw(script) {
    var data = JSON.parse(script.textContent);
    var chosen = data.controls.map(function (control) {
      return control.index;
    });
    var box = element("div", "try-it");
    var frame = element("figure", "try-it-frame");
    frame.setAttribute("aria-live", "polite");
    var text = element("pre", "try-it-text");
    var image = element("img", "try-it-image");
    image.decoding = "async";
    frame.appendChild(text);
    frame.appendChild(image);

    function show() {
      var shown = data.frames[chosen.join(",")];
      text.textContent = shown.text;
      text.hidden = !shown.text;
      image.src = shown.src;
      image.width = shown.width;
      image.height = shown.height;
      image.alt =
        "Figure computed for " +
        data.controls
          .map(function (control, level) {
            return control.label + " " + control.options[chosen[level]];
          })
          .join(", ");
    }

    data.controls.forEach(function (control, level) {
      var id = "try-it-" + ++count;
      var pick = function (index) {
        chosen[level] = index;
        show();
      };
      box.appendChild(
        (control.kind === "slider" ? slider : buttons)(control, id, pick)
      );
    });
    box.appendChild(frame);
    // the first time a reader reaches for a control, fetch the other frames
    // too, so that the next choices show at once
    var fetched = false;
    function fetchAll() {
      if (fetched) return;
      fetched = true;
      Object.keys(data.frames).forEach(function (key) {
        new Image().src = data.frames[key].src;
      });
    }
    box.addEventListener("pointerenter", fetchAll);
    box.addEventListener("focusin", fetchAll);
    show();
    script.replaceWith(box);
  }

  function drawAll() {
    document.querySelectorAll("script.try-it-data").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
