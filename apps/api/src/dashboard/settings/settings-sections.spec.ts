import { PRODUCT_SETTINGS } from '../../products/products.service';
import { SETTINGS_SECTIONS } from './settings-sections';

describe('SETTINGS_SECTIONS', () => {
  it('hold every setting of the API once, so that each is saved by exactly one section', () => {
    const fields = SETTINGS_SECTIONS.flatMap((section) => section.fields);
    expect([...fields].sort()).toEqual(Object.keys(PRODUCT_SETTINGS.shape).sort());
  });
});
