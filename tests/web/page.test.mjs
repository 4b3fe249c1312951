// The page in headless Chromium: it loads the built package, computes the documents' examples
// and shows the documents' numbers; it requests nothing outside its origin and logs no errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openPage, artefacts } from './browser.mjs';

let b;
before(async () => {
  b = await openPage();
  await b.page.goto(b.origin + '/');
  await b.page.waitForSelector('body[data-ready]', { timeout: 30000 });
});
after(async () => {
  await b?.close();
});

const result = (id) => b.page.locator(`[data-example="${id}"] .result`).innerText();

test('the module loads and the page says so', async () => {
  assert.equal(await b.page.getAttribute('body', 'data-ready'), 'true');
});

test("document 000 E0.1-E0.8 show the document's output", async () => {
  assert.equal(await result('E0.1'), "{'Life': 0, 'dessert': 1, 'eat': 2, 'first': 3, 'is': 4, 'short': 5}");
  assert.equal(await result('E0.2'), 'tensor([0, 4, 5, 2, 1, 3])');
  const e03 = await result('E0.3');
  assert.ok(e03.startsWith('tensor([[ 0.3374, -0.1778, -0.3035, -0.5880,  0.3486,  0.6603, -0.2196, -0.3792,\n'), e03);
  assert.ok(
    e03.includes(
      '[ 0.8768,  1.6221, -1.4779,  1.1331, -1.2203,  1.3139,  1.0533,  0.1388,\n          2.2473, -0.8036, -0.2808,  0.7697, -0.6596, -0.7979,  0.1838,  0.2293]])',
    ),
    e03,
  );
  assert.ok(e03.endsWith('torch.Size([6, 16])'));
  assert.equal(await result('E0.4'), 'torch.Size([24])\ntorch.Size([24])\ntorch.Size([28])');
  assert.equal(await result('E0.5'), 'keys.shape: torch.Size([6, 24])\nvalues.shape: torch.Size([6, 28])');
  assert.equal(await result('E0.6'), 'tensor(11.1466)\ntensor([ 8.5808, -7.6597,  3.2558,  1.0395, 11.1466, -0.4800])');
  assert.equal(await result('E0.7'), 'tensor([0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458])');
  assert.equal(
    await result('E0.8'),
    `torch.Size([28])
tensor([-1.5993,  0.0156,  1.2670,  0.0032, -0.6460, -1.1407, -0.4908, -1.4632,
         0.4747,  1.1926,  0.4506, -0.7110,  0.0602,  0.7125, -0.1628, -2.0184,
         0.3838, -2.1188, -0.8136, -1.5694,  0.7934, -0.2911, -1.3640, -0.2366,
        -0.9564, -0.5265,  0.0624,  1.7084])`,
  );
  await b.page.locator('[data-document="000"]').screenshot({ path: join(artefacts, 'document-000.png') });
});

test('changing the seed changes the embedding', async () => {
  const before = await result('E0.3');
  await b.page.fill('[data-document="000"] [name=seed]', '7');
  await b.page.waitForFunction(
    (old) => document.querySelector('[data-example="E0.3"] .result').innerText !== old,
    before,
  );
  assert.notEqual(await result('E0.3'), before);
  await b.page.fill('[data-document="000"] [name=seed]', '123');
  await b.page.waitForFunction(() =>
    document.querySelector('[data-example="E0.3"] .result').innerText.startsWith('tensor([[ 0.3374'),
  );
});

test('no request left the origin and the console has no errors', () => {
  assert.deepEqual(b.outside, []);
  assert.deepEqual(b.consoleErrors, []);
});
