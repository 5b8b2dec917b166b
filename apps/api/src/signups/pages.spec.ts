import { friendsInWords } from './pages';

describe('friendsInWords', () => {
  const words = (credited: number, places: number, beingChecked: number) => String(friendsInWords({ credited, places, beingChecked }));

  it('says nothing while no friend has confirmed', () => {
    expect(words(0, 0, 0)).toBe('');
  });

  it('counts friends, places and held credit, each in its number', () => {
    expect(words(3, 3, 1)).toBe('<p>3 friends moved you up 3 places; 1 is still being checked.</p>');
    expect(words(1, 2, 0)).toBe('<p>1 friend moved you up 2 places.</p>');
    expect(words(0, 0, 2)).toBe('<p>2 friends are still being checked.</p>');
    expect(words(2, 2, 2)).toBe('<p>2 friends moved you up 2 places; 2 are still being checked.</p>');
  });

  it('says the friends joined when a referral gives no places', () => {
    expect(words(2, 0, 0)).toBe('<p>2 friends joined through your link.</p>');
  });
});
