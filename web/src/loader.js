// A model folder from the reader's machine: the file and folder pickers, a drop zone, the privacy
// note, a progress bar, the status line and the error line. E4.6 (DistilBERT) and the generation
// explorer (GPT-2 / Llama) each have one; the files go to the page's Web Worker, never elsewhere.
import { prose } from './example.js';

const MB = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);
export { MB };

/** The files of dropped items: a folder's files (its top level), or the files themselves. */
async function droppedFiles(dataTransfer) {
  // the entries must be taken during the drop event; reading them may wait
  const entries = [...dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...dataTransfer.files];
  const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
  const files = [];
  for (const entry of entries) {
    if (entry.isFile) files.push(await fileOf(entry));
    if (!entry.isDirectory) continue;
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
      if (!batch.length) break;
      for (const e of batch) if (e.isFile) files.push(await fileOf(e));
    }
  }
  return files;
}

/**
 * The loader's panel; `text`: { heading, instructions, privacy }. Returns { el, start(files),
 * onProgress, failed(message), done(status) } to show a load's course: el.dataset.state is
 * 'loading', then 'loaded' or 'failed' (set by the caller's done/failed).
 */
export function loaderPanel(text) {
  const el = document.createElement('div');
  el.className = 'loader';
  el.innerHTML = `<h4></h4><p class="instructions"></p>
    <div class="dropzone">
      <label>Model folder <input type="file" name="folder" webkitdirectory></label>
      <label>or its files <input type="file" name="files" multiple></label>
      <span class="droptext">or drop the folder here</span>
    </div>
    <p class="privacy"></p>
    <div class="progress" hidden><progress max="1" value="0"></progress> <span class="progresstext"></span></div>
    <p class="status" role="status"></p>
    <p class="error" role="alert"></p>`;
  el.querySelector('h4').textContent = text.heading;
  el.querySelector('.instructions').textContent = prose(text.instructions);
  el.querySelector('.privacy').textContent = prose(text.privacy);
  const progressBox = el.querySelector('.progress'),
    bar = el.querySelector('progress'),
    progressText = el.querySelector('.progresstext');
  const status = el.querySelector('.status'),
    error = el.querySelector('.error');
  return {
    el,
    status,
    error,
    /** A load of `files` begins. */
    start(files) {
      el.dataset.state = 'loading';
      error.textContent = '';
      status.textContent = `Reading ${files.length} file(s)…`;
      progressBox.hidden = false;
      bar.value = 0;
      bar.dataset.percent = '0';
      progressText.textContent = '';
    },
    /** loadPretrained's onProgress: bytes of model.safetensors read of those to read. */
    onProgress({ loaded, total }) {
      bar.value = total ? loaded / total : 1;
      bar.dataset.percent = String(Math.floor((100 * loaded) / (total || 1)));
      progressText.textContent = `${MB(loaded)} of ${MB(total)} MB (${bar.dataset.percent} %)`;
    },
    /** No model: `message` says why. */
    failed(message) {
      el.dataset.state = 'failed';
      progressBox.hidden = true;
      status.textContent = 'No model is loaded.';
      error.textContent = message;
    },
  };
}

/**
 * Calls load(files) with the files chosen in the loader's pickers or dropped on its zone. A file
 * dropped anywhere else on the page must not replace the page, so those drops are refused.
 */
export function onFiles(loader, load) {
  for (const name of ['files', 'folder']) {
    const picker = loader.querySelector(`[name=${name}]`);
    picker.addEventListener('change', () => {
      if (picker.files.length) load([...picker.files]);
      picker.value = ''; // choosing the same folder again loads it again
    });
  }
  const zone = loader.querySelector('.dropzone');
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  for (const type of ['dragover', 'drop'])
    window.addEventListener(type, (e) => {
      if (hasFiles(e)) e.preventDefault();
    });
  zone.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    zone.classList.remove('over');
    const files = await droppedFiles(e.dataTransfer);
    if (files.length) load(files);
  });
}
