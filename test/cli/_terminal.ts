/**
 * A small terminal for the progress tests: it applies a byte stream's text, carriage returns,
 * line feeds and the ANSI controls the commands and their runners write (cursor up `ESC[nA`,
 * column `ESC[nG`, erase line `ESC[2K`, `ESC[0K`/`ESC[K`; other CSI sequences such as colours
 * are ignored) to a screen of rows, and calls back after each control so a test sees every
 * moment of a redraw. Lines do not wrap: the commands under test cut theirs to the width.
 *
 * @module
 */

/** The visible rows of the screen, trailing blanks trimmed. */
export type Screen = readonly string[];

/**
 * Plays `text` on an empty screen.
 *
 * @param text What was written to the terminal.
 * @param onMoment Called with the screen after every control character or sequence.
 * @returns The final screen.
 */
export function playTerminal(text: string, onMoment: (screen: Screen) => void = () => {}): Screen {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const screen = () => rows.map((cells) => cells.join("").trimEnd());
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === "\r") {
      col = 0;
    } else if (ch === "\n") {
      row++;
      while (rows.length <= row) rows.push([]);
    } else if (ch === "\x1b" && chars[i + 1] === "[") {
      let j = i + 2;
      let params = "";
      while (j < chars.length && /[0-9;?]/.test(chars[j])) params += chars[j++];
      const command = chars[j];
      i = j;
      const n = params === "" ? 1 : Number(params.split(";")[0]);
      if (command === "A") {
        row = Math.max(0, row - n);
      } else if (command === "G") {
        col = Math.max(0, n - 1);
      } else if (command === "K") {
        if (params === "2") rows[row] = [];
        else if (params === "" || params === "0") rows[row] = rows[row].slice(0, col);
        else if (params === "1") rows[row] = rows[row].map((c, k) => (k <= col ? " " : c));
      }
      // Colours (m) and anything else: nothing on the screen changes.
    } else {
      const cells = rows[row];
      while (cells.length < col) cells.push(" ");
      cells[col++] = ch;
      continue;
    }
    onMoment(screen());
  }
  const final = screen();
  onMoment(final);
  return final;
}
