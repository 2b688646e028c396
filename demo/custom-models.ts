/**
 * Custom models through the /v1 service, as any HTTP client would use them: list, create, page
 * through phrases, add and delete phrases. The options form's "custom model" select follows the list.
 */
import { apiJson, describeError } from './local-api';

interface CustomModel {
  id: string;
  name: string;
  description: string;
  phraseCount: number;
}

interface PhrasePage {
  phrases: { value: string }[];
  page: number;
  size: number;
  total: number;
}

const PAGE_SIZE = 20;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export class CustomModelsPanel {
  private models: CustomModel[] = [];
  private open: CustomModel | null = null;
  private page = 0;
  private readonly list = $<HTMLTableSectionElement>('cm-list');
  private readonly message = $<HTMLParagraphElement>('cm-message');
  private readonly select = $<HTMLSelectElement>('custom-model');
  private readonly detail = $<HTMLElement>('cm-detail');
  private readonly phraseList = $<HTMLUListElement>('cm-phrases');
  private readonly pageInfo = $<HTMLSpanElement>('cm-page');
  private readonly prev = $<HTMLButtonElement>('cm-prev');
  private readonly next = $<HTMLButtonElement>('cm-next');

  constructor() {
    $<HTMLFormElement>('cm-create').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.create();
    });
    $<HTMLButtonElement>('cm-refresh').addEventListener('click', () => void this.refresh());
    $<HTMLFormElement>('cm-add').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.addPhrases();
    });
    $<HTMLButtonElement>('cm-delete').addEventListener('click', () => void this.deleteChecked());
    this.prev.addEventListener('click', () => void this.showPage(this.page - 1));
    this.next.addEventListener('click', () => void this.showPage(this.page + 1));
  }

  private say(text: string, error = false): void {
    this.message.textContent = text;
    this.message.classList.toggle('error', error);
  }

  private async run(what: () => Promise<void>): Promise<void> {
    try {
      await what();
    } catch (err) {
      this.say(describeError(err), true);
    }
  }

  refresh(): Promise<void> {
    return this.run(async () => {
      this.models = await apiJson<CustomModel[]>('/v1/custom-model');
      this.renderList();
      if (this.open) {
        const still = this.models.find((m) => m.id === this.open!.id);
        if (still) this.open = still;
      }
    });
  }

  private renderList(): void {
    this.list.replaceChildren();
    for (const m of this.models) {
      const row = document.createElement('tr');
      const name = document.createElement('td');
      name.textContent = m.name;
      name.title = m.description;
      const count = document.createElement('td');
      count.textContent = String(m.phraseCount);
      count.className = 'num';
      const actions = document.createElement('td');
      const open = document.createElement('button');
      open.type = 'button';
      open.textContent = 'Phrases';
      open.setAttribute('aria-label', `Phrases of ${m.name}`);
      open.addEventListener('click', () => {
        this.open = m;
        void this.showPage(0);
      });
      const use = document.createElement('button');
      use.type = 'button';
      use.textContent = 'Use';
      use.setAttribute('aria-label', `Use ${m.name} for transcription`);
      use.addEventListener('click', () => {
        this.select.value = m.id;
        this.say(`"${m.name}" will bias the next transcription.`);
      });
      actions.append(open, ' ', use);
      row.append(name, count, actions);
      this.list.append(row);
    }
    if (!this.models.length) {
      const row = document.createElement('tr');
      const cell = document.createElement('td');
      cell.colSpan = 3;
      cell.className = 'muted';
      cell.textContent = 'No custom models yet.';
      row.append(cell);
      this.list.append(row);
    }
    // The options form's select: keep the choice if the model still exists.
    const chosen = this.select.value;
    this.select.replaceChildren(new Option('none', ''));
    for (const m of this.models) this.select.append(new Option(`${m.name} (${m.phraseCount})`, m.id));
    this.select.value = this.models.some((m) => m.id === chosen) ? chosen : '';
  }

  private create(): Promise<void> {
    return this.run(async () => {
      const form = $<HTMLFormElement>('cm-create');
      const name = $<HTMLInputElement>('cm-name').value;
      const description = $<HTMLInputElement>('cm-description').value;
      const phrases = lines($<HTMLTextAreaElement>('cm-initial').value);
      const model = await apiJson<CustomModel>('/v1/custom-model', { json: { name, description, phrases } });
      form.reset();
      this.say(`Created "${model.name}" with ${model.phraseCount} phrases.`);
      this.open = model;
      await this.refresh();
      await this.showPage(0);
    });
  }

  private showPage(page: number): Promise<void> {
    const model = this.open;
    if (!model) return Promise.resolve();
    return this.run(async () => {
      const id = encodeURIComponent(model.id);
      let res = await apiJson<PhrasePage>(`/v1/custom-model/${id}/phrases?page=${Math.max(0, page)}&size=${PAGE_SIZE}`);
      const last = Math.max(0, Math.ceil(res.total / res.size) - 1);
      // After deleting the last page's phrases, show the page that is now last.
      if (res.page > last) res = await apiJson<PhrasePage>(`/v1/custom-model/${id}/phrases?page=${last}&size=${PAGE_SIZE}`);
      this.page = res.page;
      this.detail.hidden = false;
      $<HTMLElement>('cm-detail-title').textContent = `Phrases of "${model.name}"`;
      this.phraseList.replaceChildren();
      res.phrases.forEach((p, i) => {
        const li = document.createElement('li');
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.value = p.value;
        box.id = `cm-phrase-${i}`;
        label.append(box, ' ', p.value);
        li.append(label);
        this.phraseList.append(li);
      });
      const pages = Math.max(1, Math.ceil(res.total / res.size));
      this.pageInfo.textContent = `page ${res.page + 1} of ${pages} · ${res.total} phrases`;
      this.prev.disabled = res.page === 0;
      this.next.disabled = res.page + 1 >= pages;
    });
  }

  private addPhrases(): Promise<void> {
    const model = this.open;
    if (!model) return Promise.resolve();
    return this.run(async () => {
      const box = $<HTMLTextAreaElement>('cm-new-phrases');
      const phrases = lines(box.value);
      const res = await apiJson<{ added: number; skipped: number }>(`/v1/custom-model/${encodeURIComponent(model.id)}/phrases`, {
        json: { phrases },
      });
      box.value = '';
      this.say(`Added ${res.added}, skipped ${res.skipped} already there.`);
      await this.refresh();
      await this.showPage(this.page);
    });
  }

  private deleteChecked(): Promise<void> {
    const model = this.open;
    if (!model) return Promise.resolve();
    const phrases = [...this.phraseList.querySelectorAll<HTMLInputElement>('input:checked')].map((b) => b.value);
    if (!phrases.length) {
      this.say('Tick the phrases to delete first.', true);
      return Promise.resolve();
    }
    return this.run(async () => {
      const res = await apiJson<{ deleted: number; skipped: number }>(
        `/v1/custom-model/${encodeURIComponent(model.id)}/phrases/delete`,
        { json: { phrases } },
      );
      this.say(`Deleted ${res.deleted} phrase${res.deleted === 1 ? '' : 's'}.`);
      await this.refresh();
      await this.showPage(this.page);
    });
  }
}
