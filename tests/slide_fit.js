// Fit of one reveal.js slide, and of every slide of a deck (tests/test_lectures.py).

function measure(slide, prose, output, width, height) {
  const problems = [];
  const box = slide.getBoundingClientRect();
  if (slide.scrollHeight > height || box.bottom > height + 1)
    problems.push(`content ${Math.max(slide.scrollHeight, box.bottom)} px tall`);
  for (const el of slide.querySelectorAll("pre, img, table, mjx-container, p, li")) {
    const r = el.getBoundingClientRect();
    if (el.closest("aside.notes") || r.width === 0) continue;
    const block = getComputedStyle(el).display === "block" && el.tagName !== "MJX-CONTAINER";
    if (r.right > width + 1 || (block && el.scrollWidth > el.clientWidth + 1))
      problems.push(`${el.tagName.toLowerCase()} too wide: ${el.textContent.slice(0, 40)}`);
  }
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest("aside.notes, mjx-container, style, script")) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const floor = el.closest(".jp-OutputArea, .jp-InputArea") ? output : prose;
    if (size < floor - 0.5)
      problems.push(`${size} px text: ${node.textContent.trim().slice(0, 40)}`);
  }
  return [...new Set(problems)].slice(0, 4);
}

async function measureDeck([prose, output, width, height]) {
  const problems = [];
  for (const indices of Reveal.getSlides().map(s => Reveal.getIndices(s))) {
    Reveal.slide(indices.h, indices.v);
    await new Promise(settled => requestAnimationFrame(() => setTimeout(settled, 20)));
    problems.push(...measure(Reveal.getCurrentSlide(), prose, output, width, height)
                  .map(problem => `slide ${indices.h}.${indices.v}: ${problem}`));
  }
  return problems;
}
